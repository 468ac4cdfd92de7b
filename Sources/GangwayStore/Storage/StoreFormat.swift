/// Constants of the on-disk format.
enum StoreFormat {
    /// The format this version writes and the newest it reads.
    static let version = 1
    /// The database file inside a store directory.
    static let databaseFileName = "store.sqlite"
    /// The lock file an unlock attempt holds, beside the database (``SecureStoreLocation``).
    static let attemptLockFileName = "attempts.lock"
}
