package tradebench.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.io.Serial;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * JSON documents built through Jackson's streaming generator: fields in the order they
 * are written, numbers as numbers ({@link java.math.BigDecimal}s in plain notation, never
 * {@code 1E+1}), strings escaped exactly as {@link JsonText#quote} escapes them, so an
 * answer reads the same whichever of the two wrote it.
 */
public final class JsonWriter {

    private static final JsonFactory FACTORY = new JsonFactoryBuilder()
            .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
            .characterEscapes(new QuoteEscapes())
            .build();

    private JsonWriter() {
    }

    /** What writes one document into the generator. */
    @FunctionalInterface
    public interface Body {
        void write(JsonGenerator json) throws IOException;
    }

    /** The document {@code body} writes, as text. */
    public static String write(Body body) {
        StringWriter text = new StringWriter(256);
        try (JsonGenerator json = FACTORY.createGenerator(text)) {
            body.write(json);
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON into memory", e);   // a StringWriter does not fail
        }
        return text.toString();
    }

    /**
     * {@link JsonText#quote}'s escaping: {@code \" \\ \n \r \t} in short form, every other
     * control character, DEL, the C1 controls and U+2028/U+2029 as a lower-case {@code \}{@code uXXXX}
     * (Jackson's own would write {@code \b}, {@code \f} and upper-case hex, and leave
     * U+007F..U+009F and U+2028/U+2029 raw).
     */
    private static final class QuoteEscapes extends CharacterEscapes {
        @Serial
        private static final long serialVersionUID = 1L;
        private final int[] ascii = standardAsciiEscapesForJSON();

        QuoteEscapes() {
            for (int c = 0; c < 0x20; c++) {
                if (c != '\n' && c != '\r' && c != '\t') ascii[c] = ESCAPE_CUSTOM;
            }
            ascii[0x7f] = ESCAPE_CUSTOM;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int c) {
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029) {
                return new SerializedString(String.format("\\u%04x", c));
            }
            return null;
        }
    }
}
