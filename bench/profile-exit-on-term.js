// Preloaded into a provider host only when the bench profiles it (bench/profile.ts): exit on SIGTERM so
// that --cpu-prof writes the profile (a process killed by a signal writes none).
process.once("SIGTERM", () => process.exit(0));
