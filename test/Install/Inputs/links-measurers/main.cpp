// Configured only (test/Install/standalone.test): never built.
int main() { return 0; }
