-- Records completion if the caller still owns the lease (in progress, same token, lease not lapsed).
-- key the record; token; retentionMs; hasResult '1' with a result, '0' without; result.
-- Reply: 1 done, 0 refused.
local function complete(key, token, retentionMs, hasResult, result)
  local h = redis.call('HMGET', key, 's', 't', 'l', 'e')
  if h[1] ~= 'P' or h[2] ~= token or tonumber(h[3]) <= now or tonumber(h[4]) <= now then
    return 0
  end
  local expires = string.format('%.0f', now + tonumber(retentionMs))
  if hasResult == '1' then
    redis.call('HSET', key, 's', 'C', 'l', string.format('%.0f', now), 'e', expires, 'r', result)
  else
    -- No field r to drop: a record in progress never holds one (every claim of a taken record drops it).
    redis.call('HSET', key, 's', 'C', 'l', string.format('%.0f', now), 'e', expires)
  end
  redis.call('PEXPIREAT', key, expires)
  return 1
end
