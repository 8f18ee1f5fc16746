package io.github.once.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

/**
 * Wraps a real data source so that tests can count round trips: calls of chosen {@link Connection} and
 * {@link Statement} methods, by name ({@code prepareStatement}, {@code commit}, {@code executeQuery}...).
 */
final class CountingDataSource {

    /**
     * The counter of statements executed while their connection was in auto-commit mode: each one commits on its
     * own, so this counts the commits that no {@code commit()} call shows.
     */
    static final String AUTO_COMMITTED = "auto-committed statement";

    private CountingDataSource() {
    }

    /** Each call of a connection or statement method named in {@code counters} adds one to its counter. */
    static DataSource counting(DataSource target, Map<String, AtomicInteger> counters) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[]{DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    if (result instanceof Connection c) {
                        return connection(c, counters);
                    }
                    return result;
                });
    }

    private static Connection connection(Connection c, Map<String, AtomicInteger> counters) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                (p, m, a) -> {
                    count(counters, m.getName());
                    Object result = invoke(c, m, a);
                    if (result instanceof Statement st) {
                        return statement(c, st, counters);
                    }
                    return result;
                });
    }

    private static Statement statement(Connection c, Statement st, Map<String, AtomicInteger> counters) {
        Class<?> type = st instanceof CallableStatement ? CallableStatement.class
                : st instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
        return (Statement) Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[]{type},
                (p, m, a) -> {
                    count(counters, m.getName());
                    if (m.getName().startsWith("execute") && c.getAutoCommit()) {
                        count(counters, AUTO_COMMITTED);
                    }
                    return invoke(st, m, a);
                });
    }

    private static void count(Map<String, AtomicInteger> counters, String name) {
        AtomicInteger counter = counters.get(name);
        if (counter != null) {
            counter.incrementAndGet();
        }
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
