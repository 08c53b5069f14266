-- study_prompts: the prompt template versions generations used, by condition.
SELECT g.prompt_version, coalesce(t.name, '') AS name, g.condition, count(*) AS generations
FROM generations g
LEFT JOIN prompt_templates t ON t.version = g.prompt_version
GROUP BY g.prompt_version, t.name, g.condition
ORDER BY g.prompt_version, g.condition
