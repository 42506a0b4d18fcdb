package tradebench.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import tradebench.model.Prices;

/** Jackson-written answers read exactly as the hand-written ones: the same escapes, prices as the same numbers. */
class JsonWriterTest {

    private static String quoted(String s) {
        return JsonWriter.write(json -> json.writeString(s));
    }

    @Test
    void everyCharacterIsEscapedAsJsonTextEscapesIt() {
        for (int c = 0; c <= 0xFFFF; c++) {
            if (Character.isSurrogate((char) c)) continue;   // alone, not a character of any string
            String s = "a" + (char) c + "b";
            assertEquals(JsonText.quote(s), quoted(s), "U+" + Integer.toHexString(c));
        }
        String supplementary = "x\uD83D\uDE00y";   // a pair: one character, written raw by both
        assertEquals(JsonText.quote(supplementary), quoted(supplementary));
    }

    @Test
    void pricesAreTheNumbersFormatWrites() {
        for (long cents = 0; cents <= 100_000; cents++) {
            long c = cents;
            assertEquals(Prices.format(c), JsonWriter.write(json -> json.writeNumber(Prices.toJsonNumber(c))), c + " cents");
        }
        for (long c : new long[] {1_000_000_000L, 123_456_789_00L, 99_999_999_999_99L}) {
            assertEquals(Prices.format(c), JsonWriter.write(json -> json.writeNumber(Prices.toJsonNumber(c))), c + " cents");
        }
    }

    @Test
    void fieldsComeInTheOrderTheyAreWritten() {
        assertEquals("{\"z\":1,\"a\":\"x\",\"m\":[2,3],\"n\":{\"b\":true}}", JsonWriter.write(json -> {
            json.writeStartObject();
            json.writeNumberField("z", 1);
            json.writeStringField("a", "x");
            json.writeArrayFieldStart("m");
            json.writeNumber(2);
            json.writeNumber(3L);
            json.writeEndArray();
            json.writeObjectFieldStart("n");
            json.writeBooleanField("b", true);
            json.writeEndObject();
            json.writeEndObject();
        }));
    }
}
