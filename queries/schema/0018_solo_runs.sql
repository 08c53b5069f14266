-- 0018: a tau2 run without a simulated user. In tau2's solo mode
-- (info.user_info.implementation "dummy_user", the "no-user" telecom mode)
-- the agent works the ticket alone and performs the user's actions itself:
-- its episodes say nothing about a user simulator, no statistic of one
-- counts them, and its user_sim names none (queries.NoUserSim). Runs stored
-- before this migration are marked from their user_impl.
ALTER TABLE ep_runs ADD COLUMN no_user BOOLEAN DEFAULT false;
UPDATE ep_runs SET no_user = coalesce(user_impl = 'dummy_user', false);
UPDATE ep_runs SET user_sim = 'none (solo mode)' WHERE no_user;
