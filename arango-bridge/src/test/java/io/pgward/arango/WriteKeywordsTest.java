package io.pgward.arango;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class WriteKeywordsTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "FOR u IN users RETURN u",
            "FOR u IN users FILTER u.name == 'UPDATE users' RETURN u",
            "FOR u IN users FILTER u.name == \"remove \\\" REMOVE\" RETURN u",
            "// INSERT {a: 1} INTO users\nFOR u IN users RETURN u",
            "FOR u IN users /* UPSERT\n REPLACE */ RETURN u",
            "FOR u IN `update` RETURN u",
            "FOR u IN \u00B4insert\u00B4 RETURN u",
            "FOR u IN @@update RETURN @remove",
            "FOR u IN users RETURN u.updated_at",
            "FOR u IN users RETURN {reinsert: u.upserted, removed: u.replacement}"})
    void stringsCommentsQuotedNamesAndLongerWordsNeverMatch(String aql) {
        assertEquals(Optional.empty(), WriteKeywords.firstMatch(aql));
    }

    @Test
    void bareKeywordsMatchInAnyCase() {
        assertEquals(Optional.of("INSERT"), WriteKeywords.firstMatch("insert {a: 1} into users"));
        assertEquals(Optional.of("UPDATE"), WriteKeywords.firstMatch("FOR u IN users Update u WITH {} IN users"));
        assertEquals(Optional.of("REMOVE"), WriteKeywords.firstMatch("FOR u IN users RETURN u.remove"));
        assertEquals(Optional.of("UPSERT"),
                WriteKeywords.firstMatch("/* upsert? */ UPSERT {a: 1} INSERT {a: 1} UPDATE {} IN users"));
    }

    @Test
    void aKeywordAfterAnUnterminatedCommentIsHiddenLikeArangoDbWouldRejectIt() {
        assertEquals(Optional.empty(), WriteKeywords.firstMatch("FOR u IN users /* REMOVE u IN users"));
    }

    @Test
    void theOperationSkipsAttributeAccessAndObjectKeys() {
        assertEquals(Optional.empty(), WriteKeywords.operation("FOR u IN users FILTER u.update RETURN {remove: 1}"));
        assertEquals(Optional.of("REMOVE"),
                WriteKeywords.operation("FOR u IN users FILTER u.update REMOVE u IN users"));
        assertEquals(Optional.of("INSERT"), WriteKeywords.operation("FOR i IN 1..3 INSERT {n: i} INTO users"));
    }
}
