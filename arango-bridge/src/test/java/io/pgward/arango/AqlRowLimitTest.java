package io.pgward.arango;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class AqlRowLimitTest {

    @Test
    void wrapsTheQueryAsASubqueryOfALimitedLoop() {
        assertEquals("FOR pgward_row IN (\nFOR u IN users RETURN u\n) LIMIT 7 RETURN pgward_row",
                AqlRowLimit.apply("  FOR u IN users RETURN u \n", 7));
        assertEquals("FOR pgward_row IN (\nRETURN LENGTH(users)\n) LIMIT 1 RETURN pgward_row",
                AqlRowLimit.apply("RETURN LENGTH(users)", 1));
    }

    @Test
    void aTrailingLineCommentCannotSwallowTheClosingParenthesis() {
        assertEquals("FOR pgward_row IN (\nFOR u IN users RETURN u // every user\n) LIMIT 3 RETURN pgward_row",
                AqlRowLimit.apply("FOR u IN users RETURN u // every user", 3));
    }

    @Test
    void aWithDeclarationMovesInFrontOfTheWrapper() {
        assertEquals("WITH users, knows\nFOR pgward_row IN (\nFOR v IN 1..2 OUTBOUND 'users/1' knows RETURN v\n) "
                        + "LIMIT 5 RETURN pgward_row",
                AqlRowLimit.apply("WITH users, knows FOR v IN 1..2 OUTBOUND 'users/1' knows RETURN v", 5));
        assertEquals("with users `places` @@more\nFOR pgward_row IN (\nfor v IN 1 ANY 'users/1' GRAPH 'social' "
                        + "RETURN v\n) LIMIT 2 RETURN pgward_row",
                AqlRowLimit.apply("with users `places` @@more\n  for v IN 1 ANY 'users/1' GRAPH 'social' RETURN v", 2));
        assertEquals("FOR pgward_row IN (\nFOR w IN with_dates RETURN w\n) LIMIT 4 RETURN pgward_row",
                AqlRowLimit.apply("FOR w IN with_dates RETURN w", 4), "WITH only counts as the first word");
    }

    @Test
    void trailingSemicolonsAreDroppedOutsideStringsAndComments() {
        assertEquals("FOR u IN users RETURN u", AqlRowLimit.withoutTrailingSemicolons("FOR u IN users RETURN u ;; "));
        assertEquals("FOR u IN users RETURN u", AqlRowLimit.withoutTrailingSemicolons("FOR u IN users RETURN u; // x"));
        assertEquals("RETURN ';'", AqlRowLimit.withoutTrailingSemicolons(" RETURN ';' "));
        assertEquals("RETURN 1 // ;", AqlRowLimit.withoutTrailingSemicolons("RETURN 1 // ;"));
    }
}
