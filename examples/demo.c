/* demo.c — placeholder, replaced once the descriptor layer exists. */
int main(void) { return 0; }
