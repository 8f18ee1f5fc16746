-- Claims one record in one atomic step. Times are the Redis server's (now, micros from clock.lua), in ms; tokens
-- in us. Hash fields: s state (P in progress, C completed), t token, l lease deadline (completion time once C),
-- f fingerprint, r result, e expiry; g the last released token (release.lua); k takeovers in a row: claims that
-- took the record over from a lapsed lease nobody completed or released (0 or absent otherwise).
-- key the record; fingerprint '+' .. fingerprint, or '-' for none; leaseMs; retentionMs.
-- Reply: {'A', token, lease, takeovers} | {'B', lease} | {'D' or 'X', state, token, lease, fingerprint, result, expiry}
local function claim(key, fingerprint, leaseMs, retentionMs)
  local h = redis.call('HMGET', key, 's', 't', 'l', 'f', 'r', 'e', 'g', 'k')
  local previous = 0
  local takeovers = 0
  if h[1] then
    -- Even a record past its expiry keeps its token counter until Redis drops the key.
    previous = tonumber(h[2])
    if tonumber(h[6]) > now then
      local live = h[1] == 'C' or tonumber(h[3]) > now
      if live and h[4] and fingerprint ~= '-' and fingerprint ~= '+' .. h[4] then
        return {'X', h[1], previous, tonumber(h[3]), h[4], h[5], tonumber(h[6])}
      end
      if h[1] == 'C' then
        return {'D', h[1], previous, tonumber(h[3]), h[4], h[5], tonumber(h[6])}
      end
      if live then
        return {'B', tonumber(h[3])}
      end
      if h[7] ~= h[2] then
        -- In progress, lapsed and not given back: its owner never came back.
        takeovers = (tonumber(h[8]) or 0) + 1
      end
    end
  end
  local token = math.max(previous + 1, micros)
  local lease = now + tonumber(leaseMs)
  local expires = math.max(lease, now + tonumber(retentionMs))
  local t, l, e = string.format('%.0f', token), string.format('%.0f', lease), string.format('%.0f', expires)
  if not h[1] then
    -- A new key: nothing to overwrite or drop, and takeovers absent counts 0.
    if fingerprint == '-' then
      redis.call('HSET', key, 's', 'P', 't', t, 'l', l, 'e', e)
    else
      redis.call('HSET', key, 's', 'P', 't', t, 'l', l, 'e', e, 'f', string.sub(fingerprint, 2))
    end
  else
    -- A takeover: drop what the previous owner left that this claim does not overwrite.
    if fingerprint == '-' then
      redis.call('HSET', key, 's', 'P', 't', t, 'l', l, 'e', e, 'k', takeovers)
      redis.call('HDEL', key, 'f', 'r')
    else
      redis.call('HSET', key, 's', 'P', 't', t, 'l', l, 'e', e, 'k', takeovers, 'f', string.sub(fingerprint, 2))
      redis.call('HDEL', key, 'r')
    end
  end
  redis.call('PEXPIREAT', key, e)
  return {'A', token, lease, takeovers}
end
