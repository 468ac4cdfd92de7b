import Testing

/// The kinds of tests a developer may leave out of an inner loop (``SkipsTags``); CI runs
/// them all.
extension Tag {
    /// Runs against PostgreSQL too when `GANGWAY_POSTGRES_URL` names a database: without
    /// it, the PostgreSQL cases skip themselves and say so.
    @Tag public static var postgres: Self
    /// Drives a real browser (Debian's `chromium`, through `chromedriver`).
    @Tag public static var browser: Self
    /// Runs the built `gangway` (or its test host) as a process, as a user would.
    @Tag public static var endToEnd: Self
    /// Takes seconds: compares with an external program over every case, runs a real
    /// identity provider or a model of random steps, or waits for a timeout on purpose.
    @Tag public static var slow: Self
}
