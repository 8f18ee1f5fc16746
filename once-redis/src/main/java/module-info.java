/** The Redis store over Lettuce. */
module io.github.once.redis {
    requires transitive io.github.once.core;
    requires transitive lettuce.core;
    requires org.slf4j;

    exports io.github.once.redis;
}
