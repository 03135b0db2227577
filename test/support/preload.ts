// Tests build git repositories with the real git CLI; give them an identity
// so a fresh CI machine with no ~/.gitconfig can commit.
process.env.GIT_AUTHOR_NAME ??= "tracegate tests";
process.env.GIT_AUTHOR_EMAIL ??= "tests@tracegate.invalid";
process.env.GIT_COMMITTER_NAME ??= "tracegate tests";
process.env.GIT_COMMITTER_EMAIL ??= "tests@tracegate.invalid";
process.env.GIT_CONFIG_NOSYSTEM ??= "1";
