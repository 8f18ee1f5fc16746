-- Lets the lease lapse now if the caller still owns it. The record stays, so its token counter survives.
-- KEYS[1] the record; ARGV[1] token. Reply: 1 done, 0 refused.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local h = redis.call('HMGET', KEYS[1], 's', 't', 'l', 'e')
if h[1] ~= 'P' or h[2] ~= ARGV[1] or tonumber(h[3]) <= now or tonumber(h[4]) <= now then
  return 0
end
redis.call('HSET', KEYS[1], 'l', string.format('%.0f', now))
return 1
