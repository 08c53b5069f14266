-- Drop the staged turns of a review import (review_turn_stage.sql).
DROP TABLE IF EXISTS temp.main.ub_review_turns
