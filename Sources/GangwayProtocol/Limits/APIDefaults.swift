/// What a setting is when an app's settings do not say: the server's default for a new
/// app and the device's reading of a setting left out are the same value, stated as the
/// property's `default` in `openapi.json` (a test holds the two together).
public enum APIDefaults {
    /// Whether a shared device uploads the previous users' pending changes before the
    /// next user's session opens. On: each change is signed by its author, so carrying it
    /// needs no trust in the carrier (`sharedDeviceSettings`).
    public static let allowsUploadOfPreviousUserChanges = true
    /// Whether a passcode reset keeps the user's data: the server keeps and releases a
    /// recovery secret per registration (`recoverySettings`).
    public static let passcodeResetKeepsData = true
    /// How long the server remembers a removed entity (its tombstone in the set's change
    /// log) unless the app says otherwise (`removalsKeptDays`): a device whose copy is
    /// older than that reads the set again from the start.
    public static let removalsKeptDays = 30
    /// How many records an admin listing returns when the request does not say (`limit`).
    public static let listLimit = 100
    /// How many entities and removals a page of a sync holds when the device does not say
    /// (`syncAppData`'s `limit`).
    public static let syncPage = 1000
}
