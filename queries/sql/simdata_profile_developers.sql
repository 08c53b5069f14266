-- simdata_profile_developers: every developer with profile sessions, and how many.
SELECT developer, count(*) AS sessions
FROM session_roles
WHERE role = 'profile'
GROUP BY developer
ORDER BY developer
