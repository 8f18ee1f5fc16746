package io.github.once.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

/** Wraps a real data source so that tests can count round trips: calls of chosen {@link Connection} methods. */
final class CountingDataSource {
    private CountingDataSource() {
    }

    /** Each call of a connection method named in {@code counters} adds one to its counter. */
    static DataSource counting(DataSource target, Map<String, AtomicInteger> counters) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[]{DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    if (result instanceof Connection c) {
                        return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                                (p, m, a) -> {
                                    AtomicInteger counter = counters.get(m.getName());
                                    if (counter != null) {
                                        counter.incrementAndGet();
                                    }
                                    return invoke(c, m, a);
                                });
                    }
                    return result;
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
