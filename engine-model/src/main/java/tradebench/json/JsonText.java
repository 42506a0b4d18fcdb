package tradebench.json;

/** JSON written by hand (the HTTP answers on the hot path, the replay's RESULT): small and fixed in shape. */
public final class JsonText {
    private JsonText() {
    }

    /** A JSON string literal, quotes included. */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    /** {"error": "..."} */
    public static String error(String message) {
        return "{\"error\":" + quote(message) + "}";
    }
}
