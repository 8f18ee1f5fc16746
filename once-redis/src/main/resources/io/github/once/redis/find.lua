-- Reads one record, treating one past its expiry as absent by the server's clock (as claim does).
-- KEYS[1] the record. Reply: {} when absent, else {state, token, lease, fingerprint, result, expiry}.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local h = redis.call('HMGET', KEYS[1], 's', 't', 'l', 'f', 'r', 'e')
if not h[1] or tonumber(h[6]) <= now then
  return {}
end
return {h[1], tonumber(h[2]), tonumber(h[3]), h[4], h[5], tonumber(h[6])}
