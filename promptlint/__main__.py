from promptlint.cli import main

main()
