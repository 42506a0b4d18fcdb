package tradebench.loadclient.load;

/** What a connection sends: orders ({@code POST /buy|/sell}, answered 202) or order views ({@code GET /orders/{id}}, 200). */
enum RequestType {
    ORDER("order", 202),
    VIEW("view", 200);

    /** The key under {@code types} in the JSON. */
    final String key;
    /** The status of a request that did what it asked. */
    final int ok;

    RequestType(String key, int ok) {
        this.key = key;
        this.ok = ok;
    }
}
