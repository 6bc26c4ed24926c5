using System.Collections.Generic;

namespace Bank
{
    public class Accounts
    {
        private readonly Dictionary<string, decimal> balances = new();

        /// <summary>Deposits an amount into an account.</summary>
        public decimal Deposit(string accountId, decimal amount)
        {
            balances.TryGetValue(accountId, out var balance);
            balances[accountId] = balance + amount;
            return balances[accountId];
        }

        /// <summary>Tells whether an account exists.</summary>
        public bool HasAccount(string accountId)
        {
            return balances.ContainsKey(accountId);
        }
    }
}
