-- study_simulators: every simulator with its parameters and prices.
SELECT name, backend, model, coalesce(CAST(params AS VARCHAR), ''), price_in, price_out, batch_discount
FROM simulators
ORDER BY name
