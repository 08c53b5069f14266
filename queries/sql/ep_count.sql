SELECT count(*) FROM ep_episodes
