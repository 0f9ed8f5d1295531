// Public entry point of backup-portal-pulumi: what a Pulumi program imports.
export {};
