-- study_cells: the generations at frozen points, one row each, as judge $1
-- scored them, with integer keys, in a temporary table: the one pass over
-- the generations and their labels that the report's aggregates
-- (study_scores, study_outcomes, study_length_words,
-- study_length_developers) all read, after study_cells_words,
-- study_cells_points and study_cells_settings.
--   setting, dev, pt  the setting, developer and point (ub_study_settings,
--                     ub_study_points)
--   trial             the generation's trial (generations.trial, from 0)
--   scorable, dose    the point's (ub_study_points)
--   failed            an error or no text
--   labelled          the judge labelled it
--   hit               not failed and the judge's move is the real one
--   move              the judge's move ('' when unlabelled), at the
--                     settings at live window $2 and history $3 only (the
--                     report's anchor, queries.Anchor: the only (N, K) whose
--                     moves and lengths it draws); NULL elsewhere
--   words             the text's length in words (generations.words, or
--                     ub_study_words), at the anchor only; NULL elsewhere
--                     and when failed
-- A setting has at most one generation at a point in each trial: a
-- generation's id, the primary key, is sim.GenerationID of its simulator,
-- point, condition, N, K and trial. The texts are not read: generations.words is NULL exactly when
-- the text is (or ub_study_words has it).
CREATE OR REPLACE TEMP TABLE ub_study_cells AS
SELECT st.setting, sp.dev, sp.pt, g.trial, sp.scorable, sp.constant_dose AS dose, g.failed,
       l.move IS NOT NULL AS labelled,
       NOT g.failed AND coalesce(l.move = sp.real_move, false) AS hit,
       CASE WHEN st.window_n = $2 AND st.history_k = $3 THEN coalesce(l.move, '') END AS move,
       CASE WHEN st.window_n = $2 AND st.history_k = $3 THEN g.words END AS words
FROM (SELECT g.id, g.point_id, g.simulator, g.condition, g.window_n, g.history_k,
             coalesce(g.trial, 0) AS trial,
             g.error IS NOT NULL OR coalesce(g.words, w.words) IS NULL AS failed,
             CASE WHEN g.error IS NULL THEN coalesce(g.words, w.words) END AS words
      FROM generations g
      LEFT JOIN ub_study_words w ON w.id = g.id) g
JOIN ub_study_settings st USING (simulator, condition, window_n, history_k)
JOIN ub_study_points sp ON sp.id = g.point_id
LEFT JOIN (SELECT target_id, move
           FROM labels
           WHERE target = 'generation' AND judge = $1) l ON l.target_id = g.id
