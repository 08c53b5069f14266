DELETE FROM ep_domains WHERE domain = ?
