/** Types for install.mjs (plain JS so it runs with node alone, before anything is installed). */
export declare const agentsDir: string;
export declare const requiredBins: string[];
export declare function lockDigest(): string;
export declare function isInstalled(): boolean;
export declare function ensureAgentClis(options?: { force?: boolean }): Promise<boolean>;
