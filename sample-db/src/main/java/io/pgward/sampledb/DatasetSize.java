package io.pgward.sampledb;

/**
 * How big the sample shop is. Products, employees and payment tokens follow from the customer count.
 *
 * @param customers rows in {@code customers}
 * @param orders rows in {@code orders}; {@code order_items} holds about 2.5 times as many
 */
public record DatasetSize(int customers, int orders) {

    /** About 10,000 customers and 100,000 orders: the demo's size. */
    public static final DatasetSize DEFAULT = new DatasetSize(10_000, 100_000);

    /** A size for tests that need the shape of the data, not its bulk. */
    public static final DatasetSize SMALL = new DatasetSize(200, 1_000);

    public DatasetSize {
        if (customers < 1 || orders < 1) {
            throw new IllegalArgumentException("a dataset needs at least one customer and one order");
        }
    }

    /** The default size times {@code factor} (0.1 gives 1,000 customers and 10,000 orders). */
    public static DatasetSize scaled(double factor) {
        if (!(factor > 0) || factor > 1000) {
            throw new IllegalArgumentException("scale must be above 0 and at most 1000, was " + factor);
        }
        return new DatasetSize(Math.max(1, (int) Math.round(DEFAULT.customers * factor)),
                Math.max(1, (int) Math.round(DEFAULT.orders * factor)));
    }

    int products() {
        return Math.max(20, Math.min(500, customers / 20));
    }

    int employees() {
        return Math.max(10, Math.min(200, customers / 100));
    }
}
