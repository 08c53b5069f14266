DELETE FROM ep_prices WHERE model = ?
