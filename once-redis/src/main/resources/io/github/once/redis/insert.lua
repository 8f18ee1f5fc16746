-- Writes a completed record where the key holds no live record (none, or one past its expiry by the server's
-- clock): a copy of another store's record. A live record, in progress or completed, is left as it is.
-- key the record; retentionMs; hasResult '1' with a result, '0' without; result. Reply: 1 written, 0 left.
local function insert(key, retentionMs, hasResult, result)
  local h = redis.call('HMGET', key, 't', 'e')
  local previous = 0
  if h[2] then
    if tonumber(h[2]) > now then
      return 0
    end
    -- Past its expiry: keep the token counter rising, as a claim would, and drop what the old record left.
    previous = tonumber(h[1])
    redis.call('DEL', key)
  end
  local t = string.format('%.0f', math.max(previous + 1, micros))
  local l = string.format('%.0f', now)
  local e = string.format('%.0f', now + tonumber(retentionMs))
  if hasResult == '1' then
    redis.call('HSET', key, 's', 'C', 't', t, 'l', l, 'e', e, 'r', result)
  else
    redis.call('HSET', key, 's', 'C', 't', t, 'l', l, 'e', e)
  end
  redis.call('PEXPIREAT', key, e)
  return 1
end
