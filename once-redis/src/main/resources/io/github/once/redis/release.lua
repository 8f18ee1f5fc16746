-- Lets the lease lapse now if the caller still owns it. The record stays, so its token counter survives.
-- key the record; token. Reply: 1 done, 0 refused.
local function release(key, token)
  local h = redis.call('HMGET', key, 's', 't', 'l', 'e')
  if h[1] ~= 'P' or h[2] ~= token or tonumber(h[3]) <= now or tonumber(h[4]) <= now then
    return 0
  end
  redis.call('HSET', key, 'l', string.format('%.0f', now))
  return 1
end
