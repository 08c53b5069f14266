-- view_summary: what a workspace holds, for the viewer's status line:
-- developers, frozen points, generations, labels, episodes, verdicts.
SELECT (SELECT count(*) FROM developers), (SELECT count(*) FROM points), (SELECT count(*) FROM generations),
       (SELECT count(*) FROM labels), (SELECT count(*) FROM ep_episodes), (SELECT count(*) FROM ep_verdicts)
