-- Extends the lease to now + leaseMs if the caller still owns it; the record's expiry never shrinks.
-- key the record; token; leaseMs. Reply: the new lease deadline in ms, or 0 when refused.
local function renew(key, token, leaseMs)
  local h = redis.call('HMGET', key, 's', 't', 'l', 'e')
  if h[1] ~= 'P' or h[2] ~= token or tonumber(h[3]) <= now or tonumber(h[4]) <= now then
    return 0
  end
  local lease = now + tonumber(leaseMs)
  redis.call('HSET', key, 'l', string.format('%.0f', lease))
  if lease > tonumber(h[4]) then
    redis.call('HSET', key, 'e', string.format('%.0f', lease))
    redis.call('PEXPIREAT', key, string.format('%.0f', lease))
  end
  return lease
end
