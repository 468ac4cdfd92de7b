extension Components.Schemas.Attention {
    /// The days whose conflicts and refused changes need attention: this many, today
    /// included. The server counts over them; the console and the CLI say so.
    public static let days = 7
}
