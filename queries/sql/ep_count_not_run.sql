-- ep_count_not_run: the stored placeholders of simulations that never ran
-- (tau2's termination_reason infrastructure_error, no messages).
SELECT count(*) FROM ep_episodes WHERE termination_reason = 'infrastructure_error'
