-- Per episode graded by the grader (the parameter): the episode's facts, its verdicts
-- counted per family over accepted criteria (applicable = pass or fail),
-- the probes that fired, and the agent's effort (assistant messages, those
-- holding a question mark, and tool calls).
WITH v AS (
    SELECT v.grader, v.simulation_id,
           count(*) FILTER (WHERE c.family = 'disclosure' AND v.verdict <> 'na') AS a_disc,
           count(*) FILTER (WHERE c.family = 'disclosure' AND v.verdict = 'fail') AS f_disc,
           count(*) FILTER (WHERE c.family = 'goal_deviation' AND v.verdict <> 'na') AS a_goal,
           count(*) FILTER (WHERE c.family = 'goal_deviation' AND v.verdict = 'fail') AS f_goal,
           count(*) FILTER (WHERE c.family = 'groundedness' AND v.verdict <> 'na') AS a_grnd,
           count(*) FILTER (WHERE c.family = 'groundedness' AND v.verdict = 'fail') AS f_grnd,
           count(*) FILTER (WHERE c.family = 'omitted_info' AND v.verdict <> 'na') AS a_omit,
           count(*) FILTER (WHERE c.family = 'omitted_info' AND v.verdict = 'fail') AS f_omit
    FROM ep_verdicts v
    JOIN ep_rubric_criteria c ON c.criterion_id = v.criterion_id AND c.status = 'accepted'
    WHERE v.grader = ?
    GROUP BY v.grader, v.simulation_id
), m AS (
    SELECT simulation_id,
           count(*) FILTER (WHERE role = 'assistant') AS agent_turns,
           count(*) FILTER (WHERE role = 'assistant' AND content LIKE '%?%') AS agent_questions
    FROM ep_messages
    GROUP BY simulation_id
), t AS (
    SELECT simulation_id, count(*) AS agent_tool_calls
    FROM ep_tool_calls
    WHERE requestor = 'assistant'
    GROUP BY simulation_id
), p AS (
    SELECT simulation_id, string_agg(DISTINCT probe, ',' ORDER BY probe) AS probes
    FROM ep_probe_findings
    GROUP BY simulation_id
)
SELECT v.grader, v.simulation_id, e.user_sim, e.agent, e.domain, e.task_id, e.trial,
       e.reward, e.user_cost, coalesce(e.cost_estimated, false),
       v.a_disc, v.f_disc, v.a_goal, v.f_goal, v.a_grnd, v.f_grnd, v.a_omit, v.f_omit,
       coalesce(m.agent_turns, 0), coalesce(m.agent_questions, 0), coalesce(t.agent_tool_calls, 0),
       coalesce(p.probes, '')
FROM v
JOIN episodes e ON e.simulation_id = v.simulation_id
JOIN ep_runs r ON r.run_id = e.run_id AND NOT coalesce(r.no_user, false) -- solo mode: no user to score
LEFT JOIN m ON m.simulation_id = v.simulation_id
LEFT JOIN t ON t.simulation_id = v.simulation_id
LEFT JOIN p ON p.simulation_id = v.simulation_id
ORDER BY v.grader, v.simulation_id
