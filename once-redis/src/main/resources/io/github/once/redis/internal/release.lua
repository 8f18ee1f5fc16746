-- Lets the lease lapse now if the caller still owns it. The record stays, so its token counter survives.
-- Field g keeps the released token: while t still equals it, the record was given back rather than left to lapse
-- (a takeover writes a new t, so no claim needs to clear g).
-- key the record; token. Reply: 1 done, 0 refused.
local function release(key, token)
  local h = redis.call('HMGET', key, 's', 't', 'l', 'e')
  if h[1] ~= 'P' or h[2] ~= token or tonumber(h[3]) <= now or tonumber(h[4]) <= now then
    return 0
  end
  redis.call('HSET', key, 'l', string.format('%.0f', now), 'g', token)
  return 1
end
