package io.github.once.jdbc.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;

/**
 * The connection a handler sees in transactional mode. It may run any statement and use savepoints, but it cannot
 * end the transaction: a handler's commit would make its effect visible without the record.
 */
final class GuardedConnection implements InvocationHandler {

    private static final Set<String> FORBIDDEN = Set.of("commit", "setAutoCommit", "close", "abort",
            "setTransactionIsolation", "setReadOnly");

    private final Connection target;

    private GuardedConnection(Connection target) {
        this.target = target;
    }

    static Connection wrap(Connection target) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                new GuardedConnection(target));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        boolean wholeRollback = name.equals("rollback") && (args == null || args.length == 0);
        if (FORBIDDEN.contains(name) || wholeRollback) {
            throw new IllegalStateException("Connection." + name + " is not allowed in a transactional handler:"
                    + " Once commits the effect together with its record (throw to roll back)");
        }
        if (name.equals("unwrap") && args != null && args.length == 1 && args[0] == Connection.class) {
            return proxy;
        }
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
