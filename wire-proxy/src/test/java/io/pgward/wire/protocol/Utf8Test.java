package io.pgward.wire.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** UTF-8 validity and the error text, as PostgreSQL's pg_utf8_islegal and report_invalid_encoding give them. */
class Utf8Test {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(nullValues = "valid", value = {
            "53454c454354, valid",
            "c381, valid",                       // Á
            "e4b8a5, valid",                     // 严
            "f09f9880, valid",                   // an emoji
            "f48fbfbf, valid",                   // U+10FFFF
            "c3815c27, valid",                   // the SJIS attack's bytes are valid UTF-8: Á\\'
            "815c27, 0x81",                      // SJIS 0x81 0x5c
            "41e4b85c, 0xe4 0xb8 0x5c",          // BIG5 bytes that are no UTF-8 character
            "c0af, 0xc0 0xaf",                   // overlong /
            "c1bf, 0xc1 0xbf",
            "e080af, 0xe0 0x80 0xaf",            // overlong
            "eda080, 0xed 0xa0 0x80",            // a surrogate
            "f4908080, 0xf4 0x90 0x80 0x80",     // above U+10FFFF
            "f5808080, 0xf5 0x80 0x80 0x80",  // pg_utf_mblen reads 0xf5 as a lead of four
            "fe, 0xfe",
            "e4b8, 0xe4 0xb8",                   // cut short at the end
            "41c3, 0xc3"})
    void findsTheFirstInvalidSequence(String hex, String expected) {
        byte[] bytes = HexFormat.of().parseHex(hex);
        assertEquals(expected, Utf8.invalidSequence(Unpooled.wrappedBuffer(bytes), 0, bytes.length));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(nullValues = "valid", value = {
            "53454c454354, valid",
            "c381, valid",
            "815c41, \\x81\\A",                   // SJIS 0x81 0x5c: the lead byte shown, then the valid rest
            "41e4b85c, A\\xe4\\xb8\\",
            "eda080c381, \\xed\\xa0\\x80\u00c1",  // a surrogate, then Á
            "41c3, A\\xc3"})
    void showsTheBytesThatAreNotUtf8AsEscapes(String hex, String expected) {
        byte[] bytes = HexFormat.of().parseHex(hex);
        assertEquals(expected, Utf8.escapedIfInvalid(Unpooled.wrappedBuffer(bytes), 0, bytes.length));
    }

    /** ASCII is skipped eight bytes at a time: an invalid byte is found at every offset in a long ASCII text. */
    @Test
    void findsAnInvalidByteAfterAnyLengthOfAscii() {
        for (int ascii = 0; ascii <= 40; ascii++) {
            ByteBuf buf = Unpooled.buffer();
            buf.writeBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff});   // before the range: not read
            buf.writeBytes("S".repeat(ascii).getBytes(StandardCharsets.US_ASCII));
            buf.writeBytes(new byte[] {(byte) 0xc0, (byte) 0xaf, 'x'});
            assertEquals("0xc0 0xaf", Utf8.invalidSequence(buf, 3, buf.writerIndex()), "after " + ascii);
            assertEquals("S".repeat(ascii) + "\\xc0\\xafx", Utf8.escapedIfInvalid(buf, 3, buf.writerIndex()));
            assertNull(Utf8.invalidSequence(buf, 3, 3 + ascii), "ASCII alone");
            buf.setByte(3 + ascii, 'S');
            buf.setByte(4 + ascii, 'S');
            assertNull(Utf8.invalidSequence(buf, 3, buf.writerIndex()), "valid throughout");
            buf.setByte(buf.writerIndex() - 1, 0x80);
            assertEquals("0x80", Utf8.invalidSequence(buf, 3, buf.writerIndex()), "invalid at the end");
        }
    }
}
