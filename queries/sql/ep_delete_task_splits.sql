DELETE FROM ep_task_splits WHERE domain = ?
