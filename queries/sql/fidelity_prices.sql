-- The price table rows of the user models of runs with an estimated cost.
SELECT DISTINCT p.model, p.price_in, p.price_out, p.read_on, coalesce(p.source, '')
FROM ep_prices p
JOIN ep_runs r ON r.user_model = p.model
ORDER BY p.model
