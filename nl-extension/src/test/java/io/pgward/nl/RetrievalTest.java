package io.pgward.nl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Choosing relations per question, on reflected-shaped relations and the real in-process embedding model: the
 * ranking, the expansions, the character budget and the inferred join keys.
 */
class RetrievalTest {

    private static long nextOid = 1000;
    private static final java.util.function.ToIntFunction<Relation> SIZE = r -> SchemaText.render(r).length();

    private static final RetrievalSettings BRIDGES = RetrievalSettings.defaults().withRelationLimit(0);

    @Test
    void bridgeExpansionAddsTheJoinTableBetweenTwoChosenRelationsAndNoOtherNeighbour() {
        Shop shop = new Shop();
        List<String> shown = names(RelationChooser.choose(shop.index(BRIDGES),
                "Which customers bought which products?", 2, 100_000, SIZE));
        assertEquals(List.of("shop.products", "shop.customers", "shop.order_lines"), shown);
    }

    @Test
    void neighbourExpansionAddsEveryNeighbourAfterTheBridges() {
        Shop shop = new Shop();
        RetrievalSettings neighbours = new RetrievalSettings(0, true, RetrievalSettings.Expansion.NEIGHBOURS, false,
                false);
        List<String> shown = names(RelationChooser.choose(shop.index(neighbours),
                "Which customers bought which products?", 2, 100_000, SIZE));
        assertEquals(List.of("shop.products", "shop.customers", "shop.order_lines"), shown.subList(0, 3));
        assertTrue(shown.containsAll(List.of("shop.addresses", "shop.suppliers")), shown.toString());
    }

    @Test
    void noExpansionShowsTheTopKAlone() {
        Shop shop = new Shop();
        RetrievalSettings none = new RetrievalSettings(0, true, RetrievalSettings.Expansion.NONE, false, false);
        assertEquals(List.of("shop.products", "shop.customers"), names(RelationChooser.choose(shop.index(none),
                "Which customers bought which products?", 2, 100_000, SIZE)));
    }

    @Test
    void theBudgetLeavesOutARelationTogetherWithItsBridgeNeverTheBridgeAlone() {
        Shop shop = new Shop();
        RelationIndex index = shop.index(BRIDGES);
        int customers = SchemaText.render(shop.customers).length();
        int products = SchemaText.render(shop.products).length();
        int bridge = SchemaText.render(shop.orderLines).length();
        String question = "Which customers bought which products?";

        assertEquals(List.of("shop.products", "shop.customers", "shop.order_lines"),
                names(RelationChooser.choose(index, question, 2, customers + products + bridge, SIZE)));
        // One character short: customers would need its bridge, so both stay out; products alone is shown.
        assertEquals(List.of("shop.products"), names(RelationChooser.choose(index, question, 2,
                customers + products + bridge - 1, SIZE)));
        // The best match is shown even when it alone is over the budget.
        assertEquals(List.of("shop.products"),
                names(RelationChooser.choose(index, question, 2, 10, SIZE)));
    }

    @Test
    void withoutForeignKeysSharedKeyColumnsAndNamesAfterATableJoin() {
        Relation customers = table("dw", "customers", List.of("id", "name"), List.of("id"));
        Relation orders = table("dw", "orders", List.of("order_no", "customer_id", "tenant_id", "created_at"),
                List.of("order_no"));
        Relation orderLines = table("dw", "order_lines", List.of("id", "order_no", "product_code", "tenant_id"),
                List.of("id"));
        Relation products = table("dw", "products", List.of("product_code", "label", "tenant_id"),
                List.of("product_code"));
        Relation audit = table("dw", "audit_log", List.of("id", "tenant_id", "created_at"), List.of("id"));
        Relation elsewhere = table("other", "order_archive", List.of("order_no"), List.of("order_no"));
        List<Relation> all = List.of(customers, orders, orderLines, products, audit, elsewhere);

        JoinGraph graph = JoinGraph.build(all, true);

        assertTrue(graph.joined(0, 1), "orders.customer_id is named after customers, which has an id");
        assertTrue(graph.joined(1, 2), "order_no is a key-like column both have");
        assertTrue(graph.joined(2, 3), "product_code too");
        assertFalse(graph.joined(0, 2), "a bare id joins nothing");
        assertFalse(graph.joined(3, 4) || graph.joined(1, 4), "tenant_id is in most relations: not a join key");
        assertFalse(graph.joined(1, 5), "no inference across schemas");
        assertFalse(JoinGraph.build(all, false).joined(1, 2), "off: nothing is inferred");
    }

    @Test
    void aColumnNamedAfterARelationAndItsKeyReferencesIt() {
        Relation colour = table("dw", "colour", List.of("id", "colour"), List.of("id"));
        Relation hero = table("dw", "hero", List.of("hero_key", "eye_colour_id", "home_team_api_id"),
                List.of("hero_key"));
        Relation team = table("dw", "team", List.of("team_api_id", "label"), List.of("team_api_id"));
        Relation sets = table("dw", "sets", List.of("code", "label"), List.of("code"));
        Relation translations = table("dw", "set_translations", List.of("row_key", "setCode", "language"),
                List.of("row_key"));
        Relation notes = table("dw", "notes", List.of("row_key", "barcode", "text"), List.of("row_key"));
        JoinGraph graph = JoinGraph.build(List.of(colour, hero, team, sets, translations, notes), true);
        assertTrue(graph.joined(0, 1), "eye_colour_id: colour plus its key id, with a prefix");
        assertTrue(graph.joined(1, 2), "home_team_api_id ends in team's key team_api_id");
        assertTrue(graph.joined(3, 4), "setCode: set plus its key code");
        assertFalse(graph.joined(3, 5), "barcode ends in code, too short a key to match as an ending");
    }

    @Test
    void aKeyColumnInVeryManyRelationsJoinsThemToItsDimensionOnly() {
        List<Relation> all = new ArrayList<>();
        all.add(table("dw", "dim_customer", List.of("customer_key", "label"), List.of("customer_key")));
        for (int i = 0; i < 60; i++) {
            all.add(table("dw", "fact_" + i, List.of("fact_" + i + "_id", "customer_key"), List.of()));
        }
        all.add(table("dw", "other", List.of("other_id"), List.of("other_id")));
        for (int i = 0; i < 60; i++) {
            all.add(table("dw", "other_" + i, List.of("row_no", "other_id"), List.of()));
        }
        JoinGraph graph = JoinGraph.build(all, true);
        assertEquals(60, graph.neighbours(0).size(), "the dimension joins every fact");
        assertEquals(java.util.Set.of(0), graph.neighbours(1), "a fact joins its dimension, not the other facts");
        assertEquals(java.util.Set.of(61), graph.neighbours(62), "row_no is in many relations and in no primary key");
    }

    @Test
    void declaredForeignKeysStopInferenceForTheRelationsTheyJoin() {
        Relation customers = table("dw", "customers", List.of("customer_id"), List.of("customer_id"));
        Relation orders = new Relation(ref("dw", "orders"), Relation.Kind.TABLE, Optional.empty(),
                columns(List.of("order_id", "customer_id")), List.of("order_id"),
                List.of(new Relation.ForeignKey(List.of("customer_id"), customers.ref(), List.of("customer_id"))),
                Map.of());
        Relation invoices = table("dw", "invoices", List.of("invoice_id", "customer_id"), List.of("invoice_id"));
        JoinGraph graph = JoinGraph.build(List.of(customers, orders, invoices), true);
        assertTrue(graph.joined(0, 1));
        assertFalse(graph.joined(1, 2), "orders has a foreign key: its joins are the declared ones");
        assertFalse(graph.joined(0, 2), "customers is referenced by a foreign key");
    }

    @Test
    void schemaRankingRanksTheRelationsOfTheBestSchemaFirst() {
        List<Relation> all = new ArrayList<>();
        for (String name : List.of("employees", "salaries", "departments", "leave_requests")) {
            all.add(table("hr", name, List.of("id", "name", "amount"), List.of("id")));
        }
        for (String name : List.of("orders", "invoices", "payments", "shipments")) {
            all.add(table("sales", name, List.of("id", "name", "amount"), List.of("id")));
        }
        RelationIndex index = RelationIndex.build(Embeddings.shared(), all, BRIDGES);
        List<Integer> ranking = index.rank("Total amount of invoices and shipments per order");
        assertEquals(List.of("sales", "sales", "sales", "sales", "hr", "hr", "hr", "hr"),
                ranking.stream().map(i -> all.get(i).ref().schema()).toList());
        assertEquals(ranking, index.rank("Total amount of invoices and shipments per order"), "deterministic");
    }

    @Test
    void wordsSplitIdentifiersAndFoldPlurals() {
        assertEquals(List.of("cds", "code"), Words.of("CDSCode"));
        assertEquals(List.of("avg", "scr", "read"), Words.of("AvgScrRead"));
        assertEquals(List.of("order", "item"), Words.of("order_items"));
        assertEquals(List.of("enrollment", "k", "12"), Words.of("Enrollment (K-12)"));
        assertEquals(List.of("country", "class"), Words.of("Which countries had classes?"));
    }

    @Test
    void bm25PrefersTheDocumentThatHasTheRarerWord() {
        LexicalIndex index = LexicalIndex.build(List.of(List.of("order", "customer"), List.of("order", "product"),
                List.of("order", "supplier", "product")));
        double[] scores = index.scores(Words.of("orders of customers"));
        assertTrue(scores[0] > scores[1] && scores[0] > scores[2], java.util.Arrays.toString(scores));
        assertEquals(0, index.scores(List.of("nothing"))[0]);
    }

    /** customers, products, the order_lines between them, and neighbours of one side each. */
    private static final class Shop {
        final Relation customers = table("shop", "customers", List.of("id", "full_name", "email"), List.of("id"));
        final Relation products = table("shop", "products", List.of("id", "title", "price"), List.of("id"));
        final Relation orderLines = new Relation(ref("shop", "order_lines"), Relation.Kind.TABLE, Optional.empty(),
                columns(List.of("id", "buyer", "item", "quantity", "note_one", "note_two")),
                List.of("id"), List.of(
                new Relation.ForeignKey(List.of("buyer"), customers.ref(), List.of("id")),
                new Relation.ForeignKey(List.of("item"), products.ref(), List.of("id"))), Map.of());
        final Relation addresses = new Relation(ref("shop", "addresses"), Relation.Kind.TABLE, Optional.empty(),
                columns(List.of("id", "owner", "street", "city")), List.of("id"),
                List.of(new Relation.ForeignKey(List.of("owner"), customers.ref(), List.of("id"))), Map.of());
        final Relation suppliers = new Relation(ref("shop", "suppliers"), Relation.Kind.TABLE, Optional.empty(),
                columns(List.of("id", "supplies", "company")), List.of("id"),
                List.of(new Relation.ForeignKey(List.of("supplies"), products.ref(), List.of("id"))), Map.of());
        final Relation weather = table("shop", "weather_readings", List.of("id", "temperature", "station"),
                List.of("id"));

        RelationIndex index(RetrievalSettings settings) {
            return RelationIndex.build(Embeddings.shared(),
                    List.of(addresses, customers, orderLines, products, suppliers, weather), settings);
        }
    }

    private static List<String> names(List<Relation> relations) {
        return relations.stream().map(r -> r.ref().schema() + "." + r.ref().name()).toList();
    }

    private static Relation table(String schema, String name, List<String> columns, List<String> primaryKey) {
        return new Relation(ref(schema, name), Relation.Kind.TABLE, Optional.empty(), columns(columns), primaryKey,
                List.of(), Map.of());
    }

    private static RelationRef ref(String schema, String name) {
        return new RelationRef(nextOid++, schema, name);
    }

    private static List<Relation.Column> columns(List<String> names) {
        return names.stream().map(n -> new Relation.Column(n, "text", false, Optional.empty(), true)).toList();
    }
}
