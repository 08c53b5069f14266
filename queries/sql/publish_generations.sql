-- publish: every generation with the labels every judge gave it.
SELECT g.id, g.point_id, g.simulator, g.condition, g.window_n, g.history_k, g.text, g.error,
       g.tokens_in, g.tokens_out, g.cost, g.prompt_version, g.experiment,
       (SELECT list({'judge': l.judge, 'move': l.move, 'label7': l.label7, 'prompt_version': l.prompt_version} ORDER BY l.judge)
        FROM labels l WHERE l.target = 'generation' AND l.target_id = g.id) AS labels
FROM generations g
ORDER BY g.id
