-- Extends the lease to now + ARGV[2] ms if the caller still owns it; the record's expiry never shrinks.
-- KEYS[1] the record; ARGV[1] token; ARGV[2] lease ms. Reply: the new lease deadline in ms, or 0 when refused.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local h = redis.call('HMGET', KEYS[1], 's', 't', 'l', 'e')
if h[1] ~= 'P' or h[2] ~= ARGV[1] or tonumber(h[3]) <= now or tonumber(h[4]) <= now then
  return 0
end
local lease = now + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'l', string.format('%.0f', lease))
if lease > tonumber(h[4]) then
  redis.call('HSET', KEYS[1], 'e', string.format('%.0f', lease))
  redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', lease))
end
return lease
