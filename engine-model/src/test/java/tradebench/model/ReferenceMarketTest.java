package tradebench.model;

class ReferenceMarketTest extends MarketContract {
    @Override
    protected Market newMarket() {
        return new ReferenceMarket();
    }
}
