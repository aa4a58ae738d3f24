int u(void);
