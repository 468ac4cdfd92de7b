/// How often devices upload their logs: the one default and range that the server's
/// settings and the devices share (`uploadIntervalSeconds` in the settings exchange;
/// the API document states the same range).
public enum LogUploadSchedule {
    /// Seconds between two uploads when the app's settings name none: an hour.
    public static let defaultIntervalSeconds = 3600
    /// The intervals an administrator may set: a minute to a day.
    public static let intervalSeconds = 60...86_400
}
