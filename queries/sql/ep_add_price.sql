INSERT INTO ep_prices (model, price_in, price_out, read_on, source) VALUES (?, ?, ?, ?, ?)
