-- Reads one record for an operator, its standing decided by the server's clock.
-- key the record; full '1' to add fingerprint and result, '0' without.
-- Reply: {} when absent, else {standing, token, lease, expiry} (and fingerprint, result with full), standing one
-- of 'P' in progress under a live lease, 'R' released (g = t: given back, not taken over since), 'L' lapsed,
-- 'C' completed, 'E' past its expiry (Redis drops it soon).
local function inspect(key, full)
  local h = redis.call('HMGET', key, 's', 't', 'l', 'e', 'g', 'f', 'r')
  if not h[1] or not h[2] or not h[3] or not h[4] then
    return {}
  end
  local standing
  if tonumber(h[4]) <= now then
    standing = 'E'
  elseif h[1] == 'C' then
    standing = 'C'
  elseif tonumber(h[3]) > now then
    standing = 'P'
  elseif h[5] == h[2] then
    standing = 'R'
  else
    standing = 'L'
  end
  if full == '1' then
    return {standing, tonumber(h[2]), tonumber(h[3]), tonumber(h[4]), h[1], h[6], h[7]}
  end
  return {standing, tonumber(h[2]), tonumber(h[3]), tonumber(h[4])}
end
