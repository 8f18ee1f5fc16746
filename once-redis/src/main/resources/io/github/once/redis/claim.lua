-- Claims one record in one atomic step. Times are the Redis server's (TIME), in ms; tokens in us.
-- Hash fields: s state (P in progress, C completed), t token, l lease deadline (completion time once C),
-- f fingerprint, r result, e expiry.
-- KEYS[1] the record; ARGV[1] '+' .. fingerprint, or '-' for none; ARGV[2] lease ms; ARGV[3] retention ms.
-- Reply: {'A', token, lease} | {'B', lease} | {'D' or 'X', state, token, lease, fingerprint, result, expiry}
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local h = redis.call('HMGET', KEYS[1], 's', 't', 'l', 'f', 'r', 'e')
local previous = 0
if h[1] then
  -- Even a record past its expiry keeps its token counter until Redis drops the key.
  previous = tonumber(h[2])
  if tonumber(h[6]) > now then
    local live = h[1] == 'C' or tonumber(h[3]) > now
    if live and h[4] and ARGV[1] ~= '-' and ARGV[1] ~= '+' .. h[4] then
      return {'X', h[1], previous, tonumber(h[3]), h[4], h[5], tonumber(h[6])}
    end
    if h[1] == 'C' then
      return {'D', h[1], previous, tonumber(h[3]), h[4], h[5], tonumber(h[6])}
    end
    if live then
      return {'B', tonumber(h[3])}
    end
  end
end
local token = math.max(previous + 1, tonumber(time[1]) * 1000000 + tonumber(time[2]))
local lease = now + tonumber(ARGV[2])
local expires = math.max(lease, now + tonumber(ARGV[3]))
local fields = {'s', 'P', 't', string.format('%.0f', token), 'l', string.format('%.0f', lease),
  'e', string.format('%.0f', expires)}
if ARGV[1] ~= '-' then
  table.insert(fields, 'f')
  table.insert(fields, string.sub(ARGV[1], 2))
end
redis.call('HSET', KEYS[1], unpack(fields))
if h[1] then
  -- A takeover: drop what the previous owner left that this claim does not overwrite.
  if ARGV[1] == '-' then
    redis.call('HDEL', KEYS[1], 'f', 'r')
  else
    redis.call('HDEL', KEYS[1], 'r')
  end
end
redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', expires))
return {'A', token, lease}
