package io.pgward.sampledb;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The demo shop: {@code customers}, {@code products}, {@code orders} and {@code order_items} in {@code public},
 * with an enum, foreign keys, comments, the view {@code v_sales} and the materialized view
 * {@code mv_region_revenue}; plus the data analysts must never see, {@code hr.salaries} and
 * {@code public.payment_tokens}.
 *
 * <p>Rows are generated inside PostgreSQL from {@code generate_series}; every "random" choice is
 * {@code hashint8extended(n, salt)}, the hash PostgreSQL keeps stable across versions and platforms for hash
 * partitioning, so the same size always yields the same bytes. Identity sequences end past the loaded ids,
 * so inserts without ids work afterwards.
 */
public final class SampleDataset {

    private static final List<String> FIRST_NAMES = List.of("Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald",
            "Frances", "John", "Margaret", "Dennis", "Radia", "Ken", "Sophie", "Tim", "Hedy", "Linus", "Anita",
            "Niklaus", "Karen", "Bjarne", "Shafi", "Leslie", "Marissa", "Guido", "Annie", "Vint", "Jean", "Yukihiro",
            "Mary", "James", "Katherine", "Robert", "Evelyn", "Rasmus", "Adele", "Brian", "Lynn", "Andrew", "Ruth",
            "Michael");
    private static final List<String> LAST_NAMES = List.of("Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov",
            "Knuth", "Allen", "Backus", "Hamilton", "Ritchie", "Perlman", "Thompson", "Wilson", "Berners-Lee",
            "Lamarr", "Torvalds", "Borg", "Wirth", "Jones", "Stroustrup", "Goldwasser", "Lamport", "Mayer", "Rossum",
            "Easley", "Cerf", "Bartik", "Matsumoto", "Keller", "Gosling", "Johnson", "Noyce", "Berezin", "Lerdorf",
            "Goldberg", "Kernighan", "Conway", "Tanenbaum", "Teitelbaum", "Stonebraker");
    private static final List<String> COUNTRIES = List.of("United States", "Canada", "Mexico", "Germany", "France",
            "Spain", "Sweden", "Japan", "Australia", "India", "Brazil", "Argentina", "Chile", "South Africa", "Kenya",
            "United Arab Emirates");
    private static final List<String> REGIONS = List.of("North America", "North America", "North America", "Europe",
            "Europe", "Europe", "Europe", "Asia Pacific", "Asia Pacific", "Asia Pacific", "Latin America",
            "Latin America", "Latin America", "Middle East & Africa", "Middle East & Africa", "Middle East & Africa");
    private static final List<String> SEGMENTS = List.of("consumer", "consumer", "consumer", "small business",
            "small business", "enterprise");
    private static final List<String> ADJECTIVES = List.of("Classic", "Compact", "Deluxe", "Eco", "Ergonomic",
            "Heavy-duty", "Portable", "Smart", "Vintage", "Wireless");
    private static final List<String> NOUNS = List.of("Desk Lamp", "Kettle", "Backpack", "Headphones", "Notebook",
            "Office Chair", "Water Bottle", "Keyboard", "Blender", "Tent", "Running Shoes", "Coffee Grinder");
    private static final List<String> CATEGORIES = List.of("Home", "Kitchen", "Outdoor", "Electronics", "Office",
            "Outdoor", "Outdoor", "Electronics", "Kitchen", "Outdoor", "Sports", "Kitchen");
    private static final List<String> DEPARTMENTS = List.of("Engineering", "Sales", "Support", "Finance",
            "Marketing", "Operations");
    private static final List<String> CARD_BRANDS = List.of("visa", "mastercard", "amex", "discover");

    private SampleDataset() {
    }

    /** Creates and fills the shop in the connected database, in one transaction. */
    public static void load(Connection connection, DatasetSize size) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            for (String sql : statements(size)) {
                statement.execute(sql);
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("ANALYZE");
        }
    }

    /** The SQL that builds the dataset, in order; exposed so that the load can be read and reviewed. */
    public static List<String> statements(DatasetSize size) {
        return List.of(schema(), customers(size), products(size), orders(size), orderItems(size),
                paymentTokens(size), salaries(size), restartIdentities(), views(), comments());
    }

    private static String schema() {
        return """
                CREATE TYPE order_status AS ENUM ('pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded');
                CREATE TABLE customers (
                    id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    name text NOT NULL,
                    email text NOT NULL UNIQUE,
                    region text NOT NULL,
                    country text NOT NULL,
                    segment text NOT NULL,
                    created_at timestamptz NOT NULL
                );
                CREATE TABLE products (
                    id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    sku text NOT NULL UNIQUE,
                    name text NOT NULL,
                    category text NOT NULL,
                    unit_price numeric(10,2) NOT NULL CHECK (unit_price > 0),
                    active boolean NOT NULL DEFAULT true
                );
                CREATE TABLE orders (
                    id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    customer_id integer NOT NULL REFERENCES customers (id),
                    status order_status NOT NULL DEFAULT 'pending',
                    ordered_at timestamptz NOT NULL,
                    shipped_at timestamptz,
                    total numeric(12,2) NOT NULL
                );
                CREATE INDEX orders_customer_id_idx ON orders (customer_id);
                CREATE INDEX orders_ordered_at_idx ON orders (ordered_at);
                CREATE TABLE order_items (
                    order_id integer NOT NULL REFERENCES orders (id),
                    line_no smallint NOT NULL,
                    product_id integer NOT NULL REFERENCES products (id),
                    quantity integer NOT NULL CHECK (quantity > 0),
                    unit_price numeric(10,2) NOT NULL,
                    PRIMARY KEY (order_id, line_no)
                );
                CREATE INDEX order_items_product_id_idx ON order_items (product_id);
                CREATE TABLE payment_tokens (
                    id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    customer_id integer NOT NULL REFERENCES customers (id),
                    token text NOT NULL UNIQUE,
                    card_brand text NOT NULL,
                    last4 char(4) NOT NULL,
                    expires_on date NOT NULL
                );
                CREATE SCHEMA hr;
                CREATE TABLE hr.salaries (
                    employee_id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    full_name text NOT NULL,
                    department text NOT NULL,
                    salary numeric(10,2) NOT NULL,
                    bonus numeric(10,2) NOT NULL DEFAULT 0,
                    hired_on date NOT NULL
                )""";
    }

    private static String customers(DatasetSize size) {
        return """
                INSERT INTO customers (id, name, email, region, country, segment, created_at)
                SELECT n, first_name || ' ' || last_name,
                       lower(replace(first_name || '.' || last_name, '-', '')) || n || '@example.com',
                       %s, %s, %s,
                       timestamptz '2021-01-01 00:00:00+00' + %s * interval '1 second'
                FROM generate_series(1, %d) AS n,
                     LATERAL (SELECT %s AS first_name, %s AS last_name, %s AS place) AS pick
                """.formatted(
                "(" + array(REGIONS) + ")[place]", "(" + array(COUNTRIES) + ")[place]", pick(SEGMENTS, "n", 4),
                hash("n", 5, 2 * 365 * 86_400), size.customers(), pick(FIRST_NAMES, "n", 1),
                pick(LAST_NAMES, "n", 2), "1 + " + hash("n", 3, COUNTRIES.size()));
    }

    private static String products(DatasetSize size) {
        return """
                INSERT INTO products (id, sku, name, category, unit_price, active)
                SELECT n, 'SKU-' || lpad(n::text, 5, '0'), %s || ' ' || (%s)[noun], (%s)[noun],
                       round(4.99 + %s / 100.0, 2), %s <> 0
                FROM generate_series(1, %d) AS n,
                     LATERAL (SELECT 1 + %s AS noun) AS pick
                """.formatted(pick(ADJECTIVES, "n", 11), array(NOUNS), array(CATEGORIES), hash("n", 12, 50_000),
                hash("n", 13, 12), size.products(), hash("n", 14, NOUNS.size()));
    }

    /** The lines of order {@code o}: shared by orders (for the total) and order_items, so both agree. */
    private static String lines(DatasetSize size, String o) {
        return """
                SELECT l AS line_no, p.id AS product_id, 1 + %s AS quantity, p.unit_price
                FROM generate_series(1, 1 + %s) AS l
                JOIN products AS p ON p.id = 1 + %s""".formatted(hash(o + " * 8 + l", 33, 5), hash(o, 31, 4),
                hash(o + " * 8 + l", 32, size.products()));
    }

    private static String orders(DatasetSize size) {
        return """
                INSERT INTO orders (id, customer_id, status, ordered_at, shipped_at, total)
                SELECT n, 1 + %s, status, ordered_at,
                       CASE WHEN status IN ('shipped', 'delivered', 'refunded')
                            THEN ordered_at + (1 + %s) * interval '1 day' END,
                       total
                FROM generate_series(1, %d) AS n,
                     LATERAL (SELECT (CASE WHEN r < 4 THEN 'pending' WHEN r < 12 THEN 'paid' WHEN r < 25 THEN 'shipped'
                                           WHEN r < 90 THEN 'delivered' WHEN r < 97 THEN 'cancelled'
                                           ELSE 'refunded' END)::order_status AS status,
                                     timestamptz '2023-01-01 00:00:00+00' + %s * interval '1 second' AS ordered_at
                              FROM (SELECT %s AS r) AS roll) AS pick,
                     LATERAL (SELECT sum(quantity * unit_price) AS total FROM (%s) AS line) AS sum
                """.formatted(hash("n", 21, size.customers()), hash("n", 24, 6), size.orders(),
                hash("n", 23, 2 * 365 * 86_400), hash("n", 22, 100), lines(size, "n"));
    }

    private static String orderItems(DatasetSize size) {
        return """
                INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price)
                SELECT o.id, line.line_no, line.product_id, line.quantity, line.unit_price
                FROM orders AS o, LATERAL (%s) AS line
                """.formatted(lines(size, "o.id"));
    }

    private static String paymentTokens(DatasetSize size) {
        return """
                INSERT INTO payment_tokens (customer_id, token, card_brand, last4, expires_on)
                SELECT n, 'tok_' || md5('pgward-token-' || n), %s, lpad(%s::text, 4, '0'),
                       date '2027-01-31' + (%s)::int * 30
                FROM generate_series(1, %d) AS n
                WHERE %s <> 0
                ORDER BY n
                """.formatted(pick(CARD_BRANDS, "n", 41), hash("n", 42, 10_000), hash("n", 43, 48),
                size.customers(), hash("n", 44, 3));
    }

    private static String salaries(DatasetSize size) {
        return """
                INSERT INTO hr.salaries (employee_id, full_name, department, salary, bonus, hired_on)
                SELECT n, %s || ' ' || %s, %s, 42000 + %s * 100, %s * 50, date '2012-01-01' + (%s)::int
                FROM generate_series(1, %d) AS n
                """.formatted(pick(FIRST_NAMES, "n", 51), pick(LAST_NAMES, "n", 52), pick(DEPARTMENTS, "n", 53),
                hash("n", 54, 1500), hash("n", 55, 400), hash("n", 56, 4000), size.employees());
    }

    private static String restartIdentities() {
        return """
                SELECT setval(pg_get_serial_sequence('customers', 'id'), (SELECT max(id) FROM customers));
                SELECT setval(pg_get_serial_sequence('products', 'id'), (SELECT max(id) FROM products));
                SELECT setval(pg_get_serial_sequence('orders', 'id'), (SELECT max(id) FROM orders));
                SELECT setval(pg_get_serial_sequence('payment_tokens', 'id'), (SELECT max(id) FROM payment_tokens));
                SELECT setval(pg_get_serial_sequence('hr.salaries', 'employee_id'),
                              (SELECT max(employee_id) FROM hr.salaries))""";
    }

    private static String views() {
        return """
                CREATE VIEW v_sales AS
                SELECT o.id AS order_id, o.ordered_at, o.status, c.id AS customer_id, c.name AS customer_name,
                       c.region, c.country, p.category, p.name AS product_name, i.quantity, i.unit_price,
                       i.quantity * i.unit_price AS amount
                FROM orders AS o
                JOIN customers AS c ON c.id = o.customer_id
                JOIN order_items AS i ON i.order_id = o.id
                JOIN products AS p ON p.id = i.product_id;
                CREATE MATERIALIZED VIEW mv_region_revenue AS
                SELECT c.region, date_trunc('month', o.ordered_at AT TIME ZONE 'UTC')::date AS month,
                       count(DISTINCT o.id) AS orders, sum(o.total) AS revenue
                FROM orders AS o
                JOIN customers AS c ON c.id = o.customer_id
                WHERE o.status NOT IN ('cancelled', 'refunded')
                GROUP BY 1, 2
                ORDER BY 1, 2""";
    }

    private static String comments() {
        return """
                COMMENT ON TYPE order_status IS 'Where an order is in its life: pending, paid, shipped, delivered, cancelled or refunded.';
                COMMENT ON TABLE customers IS 'People and companies who buy from the shop.';
                COMMENT ON COLUMN customers.region IS 'Sales region the customer belongs to.';
                COMMENT ON COLUMN customers.segment IS 'consumer, small business or enterprise.';
                COMMENT ON COLUMN customers.created_at IS 'When the customer account was opened.';
                COMMENT ON TABLE products IS 'The catalogue: everything the shop sells.';
                COMMENT ON COLUMN products.sku IS 'Stock keeping unit, unique per product.';
                COMMENT ON COLUMN products.unit_price IS 'Current list price in USD.';
                COMMENT ON COLUMN products.active IS 'False once a product is no longer sold.';
                COMMENT ON TABLE orders IS 'One row per order placed by a customer.';
                COMMENT ON COLUMN orders.status IS 'Lifecycle state of the order.';
                COMMENT ON COLUMN orders.total IS 'Sum of the order lines in USD.';
                COMMENT ON COLUMN orders.shipped_at IS 'When the order left the warehouse; empty until shipped.';
                COMMENT ON TABLE order_items IS 'The lines of each order.';
                COMMENT ON COLUMN order_items.unit_price IS 'Price per unit in USD when the order was placed.';
                COMMENT ON VIEW v_sales IS 'One row per order line with its customer and product: the analysts'' main view.';
                COMMENT ON MATERIALIZED VIEW mv_region_revenue IS 'Monthly revenue and order count per region, excluding cancelled and refunded orders.';
                COMMENT ON TABLE payment_tokens IS 'SENSITIVE: card payment tokens. Never for analysts.';
                COMMENT ON TABLE hr.salaries IS 'SENSITIVE: employee pay. Never for analysts.'""";
    }

    /** A deterministic pseudo-random integer in [0, modulus) for the row expression {@code n}. */
    private static String hash(String n, int salt, int modulus) {
        return "((hashint8extended((" + n + ")::bigint, " + salt + ") & 9223372036854775807) % " + modulus + ")";
    }

    private static String pick(List<String> values, String n, int salt) {
        return "(" + array(values) + ")[1 + " + hash(n, salt, values.size()) + "]";
    }

    private static String array(List<String> values) {
        return values.stream().map(v -> "'" + v.replace("'", "''") + "'")
                .collect(Collectors.joining(", ", "ARRAY[", "]"));
    }
}
