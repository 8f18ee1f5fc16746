package io.github.once.examples.orderflow;

import io.github.once.jdbc.StateMachine;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The shop's own tables in PostgreSQL, all named {@code <prefix>_...}: orders with a status and a version, stock
 * per SKU, and the notifications sent (an outbox a mailer would read).
 */
public final class Shop {

    private final DataSource dataSource;
    private final String prefix;
    private final StateMachine orders;

    public Shop(DataSource dataSource, String prefix) {
        this.dataSource = dataSource;
        this.prefix = prefix;
        this.orders = StateMachine.builder(prefix + "_orders")
                .transition("new", "processing")
                .transition("failed", "processing")   // a retry after a failure starts again
                .transition("processing", "completed")
                .transition("processing", "failed")
                .build();
    }

    public StateMachine orders() {
        return orders;
    }

    public void createTables() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS " + prefix + "_orders (id VARCHAR(64) PRIMARY KEY,"
                    + " status VARCHAR(32) NOT NULL, version BIGINT NOT NULL)");
            st.execute("CREATE TABLE IF NOT EXISTS " + prefix + "_stock (sku VARCHAR(64) PRIMARY KEY, quantity INT NOT NULL)");
            st.execute("CREATE TABLE IF NOT EXISTS " + prefix + "_notifications (order_id VARCHAR(64) NOT NULL,"
                    + " text VARCHAR(200) NOT NULL)");
        }
    }

    public void dropTables() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            for (String table : new String[] {"_orders", "_stock", "_notifications", "_once"}) {
                st.execute("DROP TABLE IF EXISTS " + prefix + table);
            }
        }
    }

    public void stock(String sku, int quantity) throws SQLException {
        update("INSERT INTO " + prefix + "_stock (sku, quantity) VALUES (?, ?)"
                + " ON CONFLICT (sku) DO UPDATE SET quantity = EXCLUDED.quantity", sku, quantity);
    }

    /** Records a new order; placing the same order twice keeps the first. */
    public void place(Order order) throws SQLException {
        update("INSERT INTO " + prefix + "_orders (id, status, version) VALUES (?, 'new', 0)"
                + " ON CONFLICT (id) DO NOTHING", order.id());
    }

    /** Takes {@code quantity} of {@code sku} out of stock, on the message's connection. */
    public void deduct(Connection c, String sku, int quantity) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + prefix + "_stock SET quantity = quantity - ?"
                + " WHERE sku = ? AND quantity >= ?")) {
            ps.setInt(1, quantity);
            ps.setString(2, sku);
            ps.setInt(3, quantity);
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("not enough " + sku + " in stock");
            }
        }
    }

    public void notify(Connection c, String orderId, String text) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + prefix + "_notifications (order_id, text)"
                + " VALUES (?, ?)")) {
            ps.setString(1, orderId);
            ps.setString(2, text);
            ps.executeUpdate();
        }
    }

    public int quantity(String sku) throws SQLException {
        return (int) single("SELECT quantity FROM " + prefix + "_stock WHERE sku = ?", sku);
    }

    public long notifications(String orderId) throws SQLException {
        return single("SELECT count(*) FROM " + prefix + "_notifications WHERE order_id = ?", orderId);
    }

    public String status(String orderId) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT status FROM " + prefix + "_orders WHERE id = ?")) {
            ps.setString(1, orderId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** Stock of every SKU, for the demo's summary. */
    public Map<String, Integer> stockLevels(String... skus) throws SQLException {
        Map<String, Integer> levels = new java.util.LinkedHashMap<>();
        for (String sku : skus) {
            levels.put(sku, quantity(sku));
        }
        return levels;
    }

    private long single(String sql, String param) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, param);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private void update(String sql, Object... params) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.executeUpdate();
        }
    }
}
