package io.pgward.nl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NlCommentTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "/* nl: top 5 customers by revenue */",
            "/* nl: top 5 customers by revenue */;",
            "  /*NL:top 5 customers by revenue*/ ; \n",
            "/* nl:\n   top 5 customers\n   by revenue\n*/;",
            "-- nl: top 5 customers by revenue\n;",
            "-- nl: top 5 customers by revenue",
            "--nl: top 5 customers\n-- by revenue\n;",
            "-- nl: top 5 customers\r\n  --   by revenue\r\n;\r\n",
    })
    void readsTheQuestion(String sql) {
        assertEquals(Optional.of("top 5 customers by revenue"), NlComment.question(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "/* outer /* nested */ still outer */",
            "/* nl: question */ SELECT 1",
            "-- nl: question\nSELECT 1;",
            "/* nl: a */ /* nl: b */",
            "/* nl: a */;;",
            "/* nl: unterminated",
            "/* not a question */",
            "-- just a comment\n;",
            "SELECT 1 /* nl: question */",
            "/* nonl: x */",
            "",
            ";",
    })
    void otherTextIsNotTheCommentForm(String sql) {
        assertEquals(Optional.empty(), NlComment.question(sql));
    }

    @org.junit.jupiter.api.Test
    void nestedCommentsStayPartOfTheQuestion() {
        assertEquals(Optional.of("revenue /* per */ region"), NlComment.question("/* nl: revenue /* per */ region */"));
        assertEquals(Optional.of(""), NlComment.question("/* nl: */"));
    }
}
