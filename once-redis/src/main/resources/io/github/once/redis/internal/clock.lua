-- The Redis server's clock, read once per script call: now in ms for deadlines, micros for tokens. A batch call
-- gives every key of the batch the same instant, as single calls within one microsecond would see.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local micros = tonumber(time[1]) * 1000000 + tonumber(time[2])
