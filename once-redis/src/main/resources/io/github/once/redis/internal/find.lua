-- Reads one record, treating one past its expiry as absent by the server's clock (as claim does).
-- key the record. Reply: {} when absent, else {state, token, lease, fingerprint, result, expiry}.
local function find(key)
  local h = redis.call('HMGET', key, 's', 't', 'l', 'f', 'r', 'e')
  if not h[1] or tonumber(h[6]) <= now then
    return {}
  end
  return {h[1], tonumber(h[2]), tonumber(h[3]), h[4], h[5], tonumber(h[6])}
end
