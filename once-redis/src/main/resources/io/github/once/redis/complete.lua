-- Records completion if the caller still owns the lease (in progress, same token, lease not lapsed).
-- KEYS[1] the record; ARGV[1] token; ARGV[2] retention ms; ARGV[3] '1' with a result, '0' without; ARGV[4] result.
-- Reply: 1 done, 0 refused.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local h = redis.call('HMGET', KEYS[1], 's', 't', 'l', 'e')
if h[1] ~= 'P' or h[2] ~= ARGV[1] or tonumber(h[3]) <= now or tonumber(h[4]) <= now then
  return 0
end
local expires = now + tonumber(ARGV[2])
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], 's', 'C', 'l', string.format('%.0f', now), 'e', string.format('%.0f', expires),
    'r', ARGV[4])
else
  redis.call('HSET', KEYS[1], 's', 'C', 'l', string.format('%.0f', now), 'e', string.format('%.0f', expires))
  redis.call('HDEL', KEYS[1], 'r')
end
redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', expires))
return 1
