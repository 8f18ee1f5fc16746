package io.github.once.rabbitmq;

import io.github.once.testkit.FaultProxy;

/**
 * PostgreSQL in transactional mode behind a fault proxy that drops every connection and refuses new ones, then
 * lets them through again. Effect and record commit together, so nothing may repeat, whenever the cut comes.
 */
class PostgresStoreOutageTest extends StoreOutageContract {

    private FaultProxy proxy;

    @Override
    protected StoreVariant startStore() throws Exception {
        proxy = new FaultProxy("127.0.0.1", 5432);
        return new JdbcTransactionalVariant("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test");
    }

    @Override
    protected void stopStore() {
        proxy.block();
    }

    @Override
    protected void restartStore() {
        proxy.restore();
    }

    @Override
    protected long repeatsAllowed() {
        return 0;
    }

    @Override
    protected void stopEverything() throws Exception {
        proxy.close();
    }
}
